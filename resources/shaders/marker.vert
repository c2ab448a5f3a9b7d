// SPDX-License-Identifier: MIT
// Markers of the point cloud view: a ring around each marked point (the inspected point and its
// neighbours), drawn last and without the depth test, so a marked point shows even when others
// are in front of it.
layout(location = 0) in vec3 a_position;

uniform mat4 u_mvp;
uniform float u_pointSize;  // the ring's outer diameter in framebuffer pixels

void main() {
    gl_Position = u_mvp * vec4(a_position, 1.0);
    gl_PointSize = u_pointSize;
}
