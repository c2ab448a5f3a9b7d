// SPDX-License-Identifier: MIT
// kNN-graph edges: the interpolated colour of the two points at the edge opacity. An end at a
// de-emphasised point (noise, 0 < alpha < 1) fades the edge toward that end with the point's
// alpha, so noise never draws attention through its edges either.
in vec4 v_colour;
in float v_shown;

uniform float u_opacity;  // the edge opacity in [0, 1]

out vec4 o_colour;

void main() {
    if (v_shown < 0.999) discard;
    o_colour = vec4(v_colour.rgb, u_opacity * v_colour.a);
}
