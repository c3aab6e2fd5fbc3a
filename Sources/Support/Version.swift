/// The release every Registrar binary belongs to: what `--version` prints and `registrar_build_info` exports.
public enum RegistrarVersion {
    /// Raised with each release (semantic versioning: the topic contract, the stores' schemas and the command lines).
    public static let current = "0.9.0"
}
