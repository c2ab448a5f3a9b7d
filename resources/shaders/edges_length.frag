// SPDX-License-Identifier: MIT
// kNN-graph edges coloured by edges_length.geom.
in vec4 v_colour;

out vec4 o_colour;

void main() {
    o_colour = v_colour;
}
