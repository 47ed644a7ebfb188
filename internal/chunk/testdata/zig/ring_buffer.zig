//! A fixed-capacity ring buffer used by the message queue.
const std = @import("std");
const mem = std.mem;
const log = @import("log.zig");

pub const Error = error{ Full, Empty };

/// Returns a ring buffer type holding `T` values.
pub fn RingBuffer(comptime T: type) type {
    return struct {
        const Self = @This();

        items: []T,
        head: usize = 0,
        len: usize = 0,

        /// Creates an empty buffer backed by `items`.
        pub fn init(items: []T) Self {
            return .{ .items = items };
        }

        pub fn push(self: *Self, value: T) Error!void {
            if (self.len == self.items.len) return error.Full;
            self.items[(self.head + self.len) % self.items.len] = value;
            self.len += 1;
        }

        pub fn pop(self: *Self) Error!T {
            if (self.len == 0) return error.Empty;
            const v = self.items[self.head];
            self.head = (self.head + 1) % self.items.len;
            self.len -= 1;
            return v;
        }
    };
}

pub const Kind = enum(u8) {
    data,
    control,

    pub fn name(self: Kind) []const u8 {
        return switch (self) {
            .data => "data {",
            .control => "control }",
        };
    }
};

const Message = union(enum) {
    text: []const u8,
    code: u32,
};

fn describe(allocator: mem.Allocator, msg: Message) error{OutOfMemory}![]u8 {
    const banner =
        \\ message {
        \\ (multi-line strings may hold braces)
    ;
    _ = banner;
    log.debug("describe {s}", .{"}"});
    return switch (msg) {
        .text => |t| std.fmt.allocPrint(allocator, "text: {s}", .{t}),
        .code => |c| std.fmt.allocPrint(allocator, "code: {d}", .{c}),
    };
}

extern fn write(fd: c_int, buf: [*]const u8, len: usize) isize;

test "ring buffer wraps around" {
    var storage: [2]u32 = undefined;
    var rb = RingBuffer(u32).init(&storage);
    try rb.push(1);
    try std.testing.expectEqual(@as(u32, 1), try rb.pop());
}
