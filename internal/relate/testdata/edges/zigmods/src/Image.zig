const std = @import("std");
const Editor = @import("Image/Editor.zig");

pixels: []u8,
width: usize,

const Image = @This();

pub fn flipVertically(self: *Image) void {
    self.check();
    Editor.flipVertically(self.pixels, self.width);
}

fn check(self: *Image) void {
    std.debug.assert(self.width > 0);
}
