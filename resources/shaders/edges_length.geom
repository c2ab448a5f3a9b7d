// SPDX-License-Identifier: MIT
// One kNN edge: dropped whole when an end is hidden or its length is outside the filter, else
// drawn in its length's colour (a colour map of its own, so that edges stand out from the
// points they join) or in its points' colours. An end at a de-emphasised point (noise,
// 0 < alpha < 1) fades the edge toward it.
layout(lines) in;
layout(line_strip, max_vertices = 2) out;

in vec3 g_position[];
in vec4 g_colour[];
in float g_mask[];

uniform mat4 u_mvp;
uniform float u_scale;        // view units per data unit (the view's power-of-two scale)
uniform vec2 u_filter;        // shortest and longest length drawn, in data units
uniform vec2 u_colourRange;   // lengths at the two ends of the colour map
uniform int u_byLength;       // 1: colour by length, 0: the points' colours
uniform sampler2D u_map;      // 256 x 1 colour map
uniform float u_opacity;      // the edge opacity in [0, 1]

out vec4 v_colour;

void main() {
    if (g_colour[0].a == 0.0 || g_colour[1].a == 0.0 || g_mask[0] > 1.5 || g_mask[1] > 1.5)
        return;
    // The view's model is a rotation: lengths in the recentred space are data lengths times
    // the scale, over the (up to) three coordinates drawn.
    float len = distance(g_position[0], g_position[1]) / u_scale;
    if (len < u_filter.x || len > u_filter.y) return;
    vec3 c0 = g_colour[0].rgb;
    vec3 c1 = g_colour[1].rgb;
    if (u_byLength != 0) {
        float span = u_colourRange.y - u_colourRange.x;
        float t = span > 0.0 ? clamp((len - u_colourRange.x) / span, 0.0, 1.0) : 0.5;
        c0 = texture(u_map, vec2((t * 255.0 + 0.5) / 256.0, 0.5)).rgb;
        c1 = c0;
    }
    gl_Position = u_mvp * vec4(g_position[0], 1.0);
    v_colour = vec4(c0, u_opacity * g_colour[0].a);
    EmitVertex();
    gl_Position = u_mvp * vec4(g_position[1], 1.0);
    v_colour = vec4(c1, u_opacity * g_colour[1].a);
    EmitVertex();
    EndPrimitive();
}
