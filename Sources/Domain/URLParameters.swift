import Foundation

extension URLComponents {
    /// The query parameters of a store or transport URL by name (a name without a value maps to "").
    /// Throws a permanent error naming the first parameter not in `known`, so that a misspelt one is not ignored.
    public func parameters(known: Set<String>) throws(StoreError) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        if let unknown = parameters.keys.first(where: { !known.contains($0) }) {
            throw StoreError(.permanent, "unknown \(scheme ?? ""):// URL parameter \(unknown); known: \(known.sorted().joined(separator: ", "))")
        }
        return parameters
    }
}
