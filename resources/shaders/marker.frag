// SPDX-License-Identifier: MIT
// A ring: the outer part of the sprite in the marker's colour with a dark edge, so it reads on
// light and dark backgrounds; the inside is left to the point itself.
uniform vec3 u_colour;
uniform float u_inner;  // inner radius as a fraction of the outer one

out vec4 o_colour;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r = length(p);
    if (r > 1.0 || r < u_inner) discard;
    o_colour = vec4(r > 0.85 ? u_colour * 0.35 : u_colour, 1.0);
}
