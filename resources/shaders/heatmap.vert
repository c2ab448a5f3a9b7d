// SPDX-License-Identifier: MIT
// The series heat map: one quad over the viewport, made from gl_VertexID (no vertex buffer).
// The #version line is prepended by SeriesHeatmapView.
out vec2 v_uv;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    // Row 0 of the texture is the top row on screen.
    v_uv = vec2(corner.x, 1.0 - corner.y);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
