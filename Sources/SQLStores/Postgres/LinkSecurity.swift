internal import CPostgres
import Foundation

/// TLS on database links: a connection to another host is verified (`sslmode=verify-full`: encrypted, the
/// server's certificate chained to a trusted root and naming the host) unless the URL or `PGSSLMODE` sets a
/// mode explicitly. Connections to this machine (a Unix socket, `localhost`, a loopback address) keep
/// libpq's default.
enum LinkSecurity {
    /// `url` (a libpq URI or `key=value` string), with `sslmode=verify-full` added when the rule asks for it.
    /// An unparsable `url` is returned as it is, for libpq to report.
    static func conninfo(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard environment["PGSSLMODE"] == nil, let options = parsed(url), options["sslmode"] == nil else { return url }
        let hosts = [options["host"], options["hostaddr"]].compactMap { $0 }
            .flatMap { $0.split(separator: ",").map(String.init) }
        guard hosts.contains(where: { !isLocal($0) }) else { return url }
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else { return url + " sslmode=verify-full" }
        return url + (url.contains("?") ? "&" : "?") + "sslmode=verify-full"
    }

    /// Whether `host` is this machine: empty (the default socket), a socket directory, or a loopback name or address.
    static func isLocal(_ host: String) -> Bool {
        host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") || host == "localhost" || host == "::1"
            || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The options libpq reads from `url`, without defaults; nil when it cannot parse it.
    private static func parsed(_ url: String) -> [String: String]? {
        guard let options = PQconninfoParse(url, nil) else { return nil }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }
}
