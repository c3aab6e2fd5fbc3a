/// A mail Registrar sends: its templates' name and the values they may use. Each step declares the letters it sends,
/// and a worker checks them at start (``MailTemplates/check(_:)``), so a template that cannot render stops the
/// start, not a send.
///
/// Its templates are `<locale>/<name>/subject.txt`, `body.txt` and `body.html` (``MailTemplates``).
public struct Letter: Sendable, Hashable {
    /// The templates' directory name, e.g. `login_code`.
    public var name: String
    /// The first part of its Message-ID (`<kind>.<request id>@<domain>`): `code` or `notice`.
    public var kind: String
    /// The values its templates may use besides ``Letter/common``: placeholders, and sections shown when set.
    public var values: Set<String>

    public init(_ name: String, kind: String, values: Set<String> = []) {
        self.name = name
        self.kind = kind
        self.values = values
    }

    /// The values every letter may use: the product's name, the support address and the recipient's address.
    public static let common: Set<String> = ["product", "support", "email"]

    /// Every name its templates may use.
    var names: Set<String> { values.union(Self.common) }
}
