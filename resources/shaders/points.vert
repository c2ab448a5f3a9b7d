// SPDX-License-Identifier: MIT
// Point sprites of the point cloud view. The #version line (GLSL 3.30 core, or 3.00 es on
// GLES) is prepended by PointCloudView so that one source serves both.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;  // RGBA8, normalised
// The view's highlight mask (PointCloudView::PointMask): 0 shown as coloured, 1 dimmed (toward
// the background, behind the rest), 2 hidden; a constant 0 without a mask.
layout(location = 2) in float a_mask;

uniform mat4 u_mvp;
uniform float u_pointSize;  // diameter in framebuffer pixels
uniform vec3 u_background;  // what dimmed points fade toward
// De-emphasised points (0 < alpha < 1, e.g. noise) go to the far plane, where any opaque point
// in front of them wins the depth test (GL_LEQUAL against the cleared depth 1): in a dense cloud
// noise never hides the clusters, and one draw call does it. Alpha 0 hides a point.

out vec3 v_colour;

void main() {
    if (a_colour.a == 0.0 || a_mask > 1.5) {
        // Outside the clip volume: the point is culled before rasterisation.
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        gl_PointSize = 1.0;
        v_colour = vec3(0.0);
        return;
    }
    gl_Position = u_mvp * vec4(a_position, 1.0);
    bool dimmed = a_mask > 0.5;
    if (a_colour.a < 0.999 || dimmed) gl_Position.z = gl_Position.w;
    gl_PointSize = u_pointSize;
    v_colour = dimmed ? mix(a_colour.rgb, u_background, 0.8) : a_colour.rgb;
}
