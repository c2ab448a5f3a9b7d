// SPDX-License-Identifier: MIT
// The pick pass of the point cloud view (polyscope's idea): every point drawn as in points.vert,
// but in a colour that is its index + 1 in RGBA8 (r the low byte), into a small offscreen
// framebuffer around the cursor; the pixel read back names the point drawn there. Hidden and
// dimmed points follow points.vert's rules, so what can be picked is what is seen on top.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;
layout(location = 2) in float a_mask;

uniform mat4 u_mvp;
uniform float u_pointSize;

flat out vec4 v_id;

void main() {
    if (a_colour.a == 0.0 || a_mask > 1.5) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        gl_PointSize = 1.0;
        v_id = vec4(0.0);
        return;
    }
    gl_Position = u_mvp * vec4(a_position, 1.0);
    if (a_colour.a < 0.999 || a_mask > 0.5) gl_Position.z = gl_Position.w;
    gl_PointSize = u_pointSize;
    uint id = uint(gl_VertexID) + 1u;
    v_id = vec4(float(id & 255u), float((id >> 8) & 255u), float((id >> 16) & 255u),
                float(id >> 24)) / 255.0;
}
