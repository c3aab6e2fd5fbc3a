import Support

/// `--tls-cert` and `--tls-key`, which the gateway and the console share: without them, plain HTTP (on loopback only).
public enum TLSOptions {
    public static let specs: [CommandSpec.Option] = [
        .value("tls-cert", "TLS certificate chain, PEM"),
        .value("tls-key", "TLS private key, PEM"),
    ]

    /// The TLS files `--tls-cert` and `--tls-key` give (nil for neither); one without the other is refused with `spec`'s help.
    public static func files(_ parsed: ParsedArguments, spec: CommandSpec) throws -> HTTPServerConfiguration.TLS? {
        switch (parsed.value("tls-cert"), parsed.value("tls-key")) {
        case (nil, nil): nil
        case (let certificate?, let key?): try HTTPServerConfiguration.TLS(certificateFile: certificate, keyFile: key)
        default: throw UsageError.invalid("give both --tls-cert and --tls-key", spec.helpText)
        }
    }
}
