/// The body of an ApiVersions answer of version 3 or later (KIP-511, a flexible version), rewritten without its
/// tagged fields.
///
/// librdkafka before 2.2.0 (Debian 12 ships 2.0.2) skips each tagged field one byte short
/// (confluentinc/librdkafka#4278). Apache Kafka writes ApiVersions' tagged fields only when they hold something
/// (and then 2.0.2 misreads their tail harmlessly), but Tansu always writes its four features fields, default-valued:
/// the epoch -1 is read as a length, and the handshake fails with "Read underflow". librdkafka 2.0.2 reads none of
/// those fields, so dropping them changes nothing it understands.
///
/// Layout (after the response header's correlation id): error code (int16), the API keys as a compact array of
/// (key, min, max: int16; tagged fields), throttle time (int32), tagged fields.
enum ApiVersionsAnswer {
    /// The body without tagged fields, or nil when `body` is not a well-formed version 3+ answer.
    static func withoutTaggedFields(_ body: [UInt8]) -> [UInt8]? {
        var reader = Reader(bytes: body)
        var rewritten: [UInt8] = []
        guard let errorCode = reader.take(2), let count = reader.unsignedVarint(), count > 0 else { return nil }
        rewritten += errorCode
        rewritten += Reader.encode(count)
        for _ in 0..<(count - 1) {
            guard let versions = reader.take(6), reader.skipTaggedFields() else { return nil }
            rewritten += versions + [0]
        }
        guard let throttle = reader.take(4), reader.skipTaggedFields(), reader.atEnd else { return nil }
        return rewritten + throttle + [0]
    }

    /// A cursor over the bytes of a Kafka message.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        /// An unsigned varint (at most 5 bytes, as the protocol's lengths and counts are).
        mutating func unsignedVarint() -> UInt32? {
            var value: UInt32 = 0
            for shift in stride(from: 0, to: 35, by: 7) {
                guard let byte = take(1)?.first else { return nil }
                value |= UInt32(byte & 0x7F) << UInt32(shift)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }

        /// Skips a tagged-fields section: a count, then that many (tag, length, data).
        mutating func skipTaggedFields() -> Bool {
            guard let count = unsignedVarint() else { return false }
            for _ in 0..<count {
                guard unsignedVarint() != nil, let length = unsignedVarint(), take(Int(length)) != nil else { return false }
            }
            return true
        }

        static func encode(_ value: UInt32) -> [UInt8] {
            var value = value
            var bytes: [UInt8] = []
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            return bytes + [UInt8(value)]
        }
    }
}
