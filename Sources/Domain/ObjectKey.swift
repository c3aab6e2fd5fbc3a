/// The one rule every object store applies to a key before touching it, so that no key reaches an
/// object outside the store's own namespace (a file outside its directory, another S3 bucket).
public enum ObjectKey {
    /// Refuses (permanently) an empty key, a leading `/`, an empty, `.` or `..` segment, a backslash
    /// or a control character.
    public static func validate(_ key: String) throws(StoreError) {
        guard let problem = problem(with: key) else { return }
        throw StoreError(.permanent, "object key refused (\(problem))")
    }

    static func problem(with key: String) -> String? {
        if key.isEmpty { return "empty" }
        if key.hasPrefix("/") { return "leading /" }
        if key.contains("\\") { return "backslash" }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "control character" }
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) { return "empty, . or .. segment" }
        return nil
    }
}
