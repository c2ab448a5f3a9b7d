// SPDX-License-Identifier: MIT
// Values (R32F, one texel per sample, NaN past a series' end) through a colour map texture.
in vec2 v_uv;

uniform sampler2D u_values;
uniform sampler2D u_colourMap;  // 256 x 1 RGBA8
uniform float u_lo;
uniform float u_hi;
uniform vec3 u_background;

out vec4 o_colour;

void main() {
    float v = texture(u_values, v_uv).r;
    if (isnan(v)) {
        o_colour = vec4(u_background, 1.0);
        return;
    }
    float t = clamp((v - u_lo) / (u_hi - u_lo), 0.0, 1.0);
    o_colour = vec4(texture(u_colourMap, vec2((t * 255.0 + 0.5) / 256.0, 0.5)).rgb, 1.0);
}
