// SPDX-License-Identifier: MIT
// Round point sprites. A hint of sphere shading (darker towards the rim) keeps neighbouring
// points of one colour distinguishable in dense clusters without lighting the scene; the centre
// keeps the exact colour, so categorical colours stay true.
in vec3 v_colour;

uniform float u_shading;  // how much darker the rim is than the centre (0: flat)

out vec4 o_colour;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    o_colour = vec4(v_colour * (1.0 - u_shading * r2 * r2), 1.0);
}
