// SPDX-License-Identifier: MIT
// The splatted points (compute/core/point_splat.h): each pixel of the image holds the RGBA8
// colour of the point it shows (red) and that point's window depth as float bits (green), or
// all ones where no point is. Writing the depth too lets the edges and markers drawn with GL
// meet the points as they would meet GL's points.
uniform highp usampler2D u_splat;

out vec4 o_colour;

void main() {
    uvec2 pixel = texelFetch(u_splat, ivec2(gl_FragCoord.xy), 0).rg;
    if (pixel.g == 0xFFFFFFFFu) discard;
    // Bytes to 0..1 and back are exact: the colour lands in the framebuffer unchanged.
    o_colour = vec4(float(pixel.r & 0xFFu), float((pixel.r >> 8) & 0xFFu),
                    float((pixel.r >> 16) & 0xFFu), 255.0) / 255.0;
    gl_FragDepth = uintBitsToFloat(pixel.g);
}
