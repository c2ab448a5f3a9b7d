// SPDX-License-Identifier: MIT
// The splatted kNN edges (compute/core/edge_splat.h): each pixel of the image holds the blended
// colour of the edges there and their joint alpha (0 where none is). Blended over the
// framebuffer as one GL line is (PointCloudView::drawEdges sets the blending).
uniform lowp sampler2D u_edges;

out vec4 o_colour;

void main() {
    vec4 pixel = texelFetch(u_edges, ivec2(gl_FragCoord.xy), 0);
    if (pixel.a == 0.0) discard;
    o_colour = pixel;
}
