import Foundation

public struct Font {
    public var size: Double
    public var name: String?

    /// The system font of the given size.
    public init(size: Double) {
        self.size = size
        self.name = nil
    }

    /// A font read from a file.
    public init(path: String, size: Double) {
        self.size = size
        self.name = path
    }

    func load() -> String {
        return load(fromPath: name ?? "default")
    }

    func load(fromPath path: String) -> String {
        return "font at " + path
    }
}
