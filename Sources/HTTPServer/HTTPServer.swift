internal import CMicroHTTPD
import Foundation
internal import MicroHTTPDShim
import Synchronization

/// An HTTP/1.1 server over libmicrohttpd (TLS through its GnuTLS support) whose handler is async.
///
/// libmicrohttpd reads each request on its own polling thread; once the body is in, the connection is
/// suspended, the handler runs as a Swift task, and the connection is resumed with its answer. Every C
/// pointer stays inside this module.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// The port it listens on.
    public let port: Int
    public let isTLS: Bool
    private let daemon: DaemonPointer
    private let core: ServerCore
    private let listening: Mutex<Bool> = Mutex(true)
    private let watchdog: Task<Void, Never>

    /// Starts listening; plain HTTP (no `configuration.tls`) only on a loopback address.
    public init(_ configuration: HTTPServerConfiguration, handler: @escaping Handler) throws {
        try configuration.validate()
        let core = ServerCore(handler: handler, screen: configuration.screen, bodyLimit: configuration.bodyLimit,
                              bodyBudget: BodyBudget(capacity: configuration.bodyBudget,
                                                      perAddress: configuration.bodyBudgetPerAddress ?? configuration.bodyBudget / 4),
                              deadlines: ConnectionDeadlines(headerTimeout: configuration.headerTimeout,
                                                             minimumBodyRate: configuration.minimumBodyRate))
        let context = Unmanaged.passUnretained(core).toOpaque()
        let started: OpaquePointer? = configuration.host.withCString { host in
            withOptionalCString(configuration.tls?.keyPEM) { key in
                withOptionalCString(configuration.tls?.certificatePEM) { certificate in
                    configuration.tlsPriorities.withCString { priorities in
                        var options = mhd_shim_options(
                            host: host, port: UInt16(configuration.port), tls_key_pem: key, tls_cert_pem: certificate,
                            tls_priorities: priorities, connection_limit: UInt32(configuration.connectionLimit),
                            per_ip_connection_limit: UInt32(configuration.connectionsPerAddress),
                            connection_timeout: UInt32(configuration.connectionTimeout),
                            connection_memory_limit: 64 * 1024, handler: accessHandler, handler_context: context,
                            completed: requestCompleted, completed_context: context,
                            notify_connection: connectionNotified, notify_connection_context: context)
                        return mhd_shim_start(&options)
                    }
                }
            }
        }
        guard let started else {
            throw HTTPServerError("cannot listen on \(configuration.host):\(configuration.port) (address in use or unusable, "
                                  + "or the TLS key, certificate or priorities refused)")
        }
        daemon = DaemonPointer(pointer: started)
        self.core = core
        isTLS = configuration.tls != nil
        port = Int(mhd_shim_port(started))
        watchdog = Task { [core] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                core.deadlines.endLateConnections()
            }
        }
    }

    /// Its URL on `host`, the address it listens on (`http://` or `https://`, an IPv6 address in brackets).
    public func url(on host: String) -> String {
        "\(isTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Stops accepting connections, lets the requests in hand finish, then stops.
    public func stop() async {
        guard listening.withLock({ state in defer { state = false }; return state }) else { return }
        let socket = MHD_quiesce_daemon(daemon.pointer)
        while core.inFlight.withLock({ $0 }) > 0 { try? await Task.sleep(for: .milliseconds(20)) }
        // A resumed connection is taken off the suspended list by the polling thread's next turn.
        try? await Task.sleep(for: .milliseconds(100))
        watchdog.cancel()
        MHD_stop_daemon(daemon.pointer)
        if socket >= 0 { close(socket) }
    }

    deinit {
        watchdog.cancel()
        if listening.withLock({ $0 }) { MHD_stop_daemon(daemon.pointer) }
    }
}

/// The daemon handle; libmicrohttpd's calls on it are thread-safe.
private struct DaemonPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What the C callbacks reach through their context pointer.
final class ServerCore: Sendable {
    let handler: HTTPServer.Handler
    let screen: @Sendable (HTTPRequest) -> Screening
    let bodyLimit: @Sendable (String, String) -> Int
    let bodyBudget: BodyBudget
    let deadlines: ConnectionDeadlines
    /// Requests whose handler is running (their connections suspended).
    let inFlight = Mutex(0)

    init(handler: @escaping HTTPServer.Handler, screen: @escaping @Sendable (HTTPRequest) -> Screening,
         bodyLimit: @escaping @Sendable (String, String) -> Int, bodyBudget: BodyBudget, deadlines: ConnectionDeadlines) {
        self.handler = handler
        self.screen = screen
        self.bodyLimit = bodyLimit
        self.bodyBudget = bodyBudget
        self.deadlines = deadlines
    }
}

private func withOptionalCString<T>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
