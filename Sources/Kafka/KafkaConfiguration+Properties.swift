import Support

extension KafkaConfiguration {
    /// `name=value` entries as properties. An option's value is one entry, commas and all; `KAFKA_PROPERTIES`
    /// holds several, comma-separated, where a piece without `=` continues the value before it (as in
    /// `bootstrap.servers=a:9092,b:9092`). Values may be secrets (`sasl.password`), so no error shows any text.
    public static func parseProperties(_ entries: [String], separatedByCommas: Bool) throws(UsageError) -> [String: String] {
        var properties: [(name: String, value: String)] = []
        let pieces = separatedByCommas
            ? entries.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) } : entries.map { Substring($0) }
        for (index, piece) in pieces.enumerated() {
            if let equals = piece.firstIndex(of: "="), equals != piece.startIndex {
                properties.append((String(piece[..<equals]), String(piece[piece.index(after: equals)...])))
            } else if separatedByCommas, !properties.isEmpty, !piece.contains("=") {
                properties[properties.count - 1].value += "," + piece
            } else {
                throw .invalid("Kafka property \(index + 1) is not name=value (its text is not shown: it may hold a secret)", "")
            }
        }
        return Dictionary(properties, uniquingKeysWith: { $1 })
    }
}
