// SPDX-License-Identifier: MIT
// kNN-graph edges of the point cloud view: GL_LINES indexing the points' own position and
// colour buffers, so an edge takes the colours of its two points (cluster colours show along
// it). The #version line is prepended by PointCloudView, as for the point shaders.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;  // RGBA8, normalised: the point's colour

uniform mat4 u_mvp;

out vec4 v_colour;
// 1 at a shown point, 0 at a hidden one (alpha 0). A vertex cannot see the other end of its
// line, so the fragment shader drops every fragment short of 1: an edge to a hidden point
// vanishes whole (moving the vertex out of the clip volume, as the point shader does, would
// only clip the line and leave half of it on screen).
out float v_shown;

void main() {
    gl_Position = u_mvp * vec4(a_position, 1.0);
    v_shown = a_colour.a == 0.0 ? 0.0 : 1.0;
    v_colour = a_colour;
}
