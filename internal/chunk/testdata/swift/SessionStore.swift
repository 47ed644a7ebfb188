import Foundation
import NIOCore

/// Stores sessions by identifier.
public protocol SessionStore {
    /// Reads the session with `id`, if any.
    func read(_ id: SessionID) async throws -> Session?
    func write(_ session: Session) async throws
}

public struct SessionID: Hashable {
    public let string: String

    public init(string: String) {
        self.string = string
    }
}

/// Keeps sessions in memory; for tests and single-process apps.
public final class MemorySessionStore: SessionStore {
    private var storage: [SessionID: Session] = [:]
    private let lock = NSLock()

    public init() {}

    public func read(_ id: SessionID) async throws -> Session? {
        lock.lock()
        defer { lock.unlock() }
        return storage[id]
    }

    public func write(_ session: Session) async throws {
        lock.withLock {
            self.storage[session.id] = session
        }
        log("stored \(session.id.string) {")
    }

    @discardableResult
    static func generate<T: RandomNumberGenerator>(using rng: inout T) -> SessionID
        where T: Sendable
    {
        let raw = """
        } not a brace {
        """
        return SessionID(string: raw + String(rng.next()))
    }
}

extension SessionID: CustomStringConvertible where Self: Hashable {
    public var description: String { string }

    func masked() -> String {
        String(string.prefix(4)) + "…"
    }
}

enum SessionError: Error {
    case notFound(SessionID)
    case expired

    var reason: String {
        switch self {
        case .notFound: return "not found"
        case .expired: return "expired"
        }
    }
}

func log(_ message: String) {
    print(message)
}
