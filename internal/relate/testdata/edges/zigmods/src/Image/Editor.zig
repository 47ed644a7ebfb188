const std = @import("std");

/// Swaps the rows of an image, the first with the last.
pub fn flipVertically(pixels: []u8, width: usize) void {
    const rows = pixels.len / width;
    var top: usize = 0;
    while (top < rows / 2) : (top += 1) {
        swapRows(pixels, width, top, rows - 1 - top);
    }
}

fn swapRows(pixels: []u8, width: usize, a: usize, b: usize) void {
    var i: usize = 0;
    while (i < width) : (i += 1) {
        std.mem.swap(u8, &pixels[a * width + i], &pixels[b * width + i]);
    }
}
