// SPDX-License-Identifier: MIT
// The pick pass: the point's id where its round sprite covers the pixel (as points.frag).
flat in vec4 v_id;

out vec4 o_id;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    if (dot(p, p) > 1.0) discard;
    o_id = v_id;
}
