// SPDX-License-Identifier: MIT
// kNN-graph edges with a geometry shader (desktop GL 3.3): the vertex stage only hands the
// point's position (the view's recentred space), colour and mask on; edges_length.geom sees both
// ends of a line, so it can measure, filter and colour it by its length.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;  // RGBA8, normalised: the point's colour
layout(location = 2) in float a_mask;   // PointCloudView::PointMask; 2 hides the point

out vec3 g_position;
out vec4 g_colour;
out float g_mask;

void main() {
    g_position = a_position;
    g_colour = a_colour;
    g_mask = a_mask;
    gl_Position = vec4(a_position, 1.0);
}
