import Support

/// A store's location as an operator writes it: a URL whose scheme picks the implementation.
package struct StoreURL {
    package enum Scheme: String {
        case postgres, sqlite, s3, file
    }

    package let scheme: Scheme
    /// The whole URL, e.g. a libpq connection URI passed on as it is.
    package let url: String
    /// What follows `scheme://`: a path for `sqlite://` and `file://` (`sqlite://data/a.sqlite` is
    /// relative, `sqlite:///var/a.sqlite` absolute).
    package let path: String

    /// Parses `url`, which must have one of the schemes in `accepted` (`postgresql` counts as `postgres`).
    package init(_ url: String, accepting accepted: [Scheme]) throws(UsageError) {
        let parts = url.split(separator: "://", maxSplits: 1).map(String.init)
        let name = parts.first?.lowercased() == "postgresql" ? "postgres" : parts.first?.lowercased()
        guard parts.count == 2, let scheme = name.flatMap(Scheme.init(rawValue:)), accepted.contains(scheme) else {
            let expected = accepted.map { "\($0.rawValue)://…" }.joined(separator: " or ")
            // The URL may hold a password: only its scheme is repeated.
            throw .invalid("expected a store URL \(expected), got one starting '\(parts.count == 2 ? parts[0] : "")'", "")
        }
        self.scheme = scheme
        self.url = url
        path = parts[1]
    }
}
