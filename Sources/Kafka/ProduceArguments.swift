internal import CRDKafka

/// The `rd_kafka_vu_t` array describing one message for `rd_kafka_produceva`, built on the stack around
/// pointers into the message's own storage: librdkafka copies everything during the call
/// (`RD_KAFKA_MSG_F_COPY`), so nothing is allocated or copied here.
enum ProduceArguments {
    /// Where an empty key, value or header value points: a null pointer would make it a null one instead.
    nonisolated(unsafe) private static let empty = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// Runs `body` with the arguments producing `message` with the opaque `id`.
    static func withValues<Result>(_ message: OutgoingMessage, id: UInt64,
                                   _ body: (UnsafeBufferPointer<rd_kafka_vu_t>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 6 + message.headers.count) { values in
            message.topic.withCString { topic in
                message.value.withUnsafeBytes { value in
                    withOptionalBytes(message.key) { key in
                        let count = fill(values, topic: topic, partition: message.partition, id: id, flags: RD_KAFKA_MSG_F_COPY,
                                         value: UnsafeRawBufferPointer(value), key: key)
                        return withHeaders(message.headers[...], in: values, from: count) { total in
                            body(UnsafeBufferPointer(rebasing: values[..<total]))
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` with the arguments producing a copy of the consumed `message` (key, value, headers) to `topic`.
    /// `headers` is a copy of the message's headers that `rd_kafka_produceva` takes over when it succeeds.
    static func withValues<Result>(copying message: KafkaMessageView, to topic: String, id: UInt64, flags: Int32,
                                   headers: OpaquePointer?, _ body: (UnsafeBufferPointer<rd_kafka_vu_t>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 7) { values in
            topic.withCString { topic in
                message.withValue { value in
                    message.withKey { key in
                        var count = fill(values, topic: topic, partition: nil, id: id, flags: flags, value: value, key: key)
                        if let headers {
                            values[count].vtype = RD_KAFKA_VTYPE_HEADERS
                            values[count].u.headers = headers
                            count += 1
                        }
                        return body(UnsafeBufferPointer(rebasing: values[..<count]))
                    }
                }
            }
        }
    }

    /// Fills the leading arguments (topic, partition, flags, opaque, value, key); returns how many. `flags` include
    /// `RD_KAFKA_MSG_F_COPY`.
    private static func fill(_ values: UnsafeMutableBufferPointer<rd_kafka_vu_t>, topic: UnsafePointer<CChar>, partition: Int32?,
                             id: UInt64, flags: Int32, value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer?) -> Int {
        var count = 0
        func append(_ type: rd_kafka_vtype_t, _ set: (inout rd_kafka_vu_t) -> Void) {
            var argument = rd_kafka_vu_t()
            argument.vtype = type
            set(&argument)
            values[count] = argument
            count += 1
        }
        append(RD_KAFKA_VTYPE_TOPIC) { $0.u.cstr = topic }
        append(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = partition ?? RD_KAFKA_PARTITION_UA }
        append(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = flags }
        append(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = UnsafeMutableRawPointer(bitPattern: UInt(id)) }
        append(RD_KAFKA_VTYPE_VALUE) {
            $0.u.mem.ptr = pointer(to: value)
            $0.u.mem.size = value.count
        }
        if let key {
            append(RD_KAFKA_VTYPE_KEY) {
                $0.u.mem.ptr = pointer(to: key)
                $0.u.mem.size = key.count
            }
        }
        return count
    }

    /// Appends a `RD_KAFKA_VTYPE_HEADER` argument per header, each pointing into the header's own storage while `body` runs.
    /// Then runs `body` with the number of arguments.
    private static func withHeaders<Result>(_ headers: ArraySlice<KafkaHeader>, in values: UnsafeMutableBufferPointer<rd_kafka_vu_t>,
                                            from index: Int, _ body: (Int) -> Result) -> Result {
        guard let header = headers.first else { return body(index) }
        return header.key.withCString { name in
            withOptionalBytes(header.value) { bytes in
                var argument = rd_kafka_vu_t()
                argument.vtype = RD_KAFKA_VTYPE_HEADER
                argument.u.header.name = name
                argument.u.header.val = bytes.map { UnsafeRawPointer(pointer(to: $0)) }
                argument.u.header.size = bytes?.count ?? 0
                values[index] = argument
                return withHeaders(headers.dropFirst(), in: values, from: index + 1, body)
            }
        }
    }

    private static func withOptionalBytes<Result>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBytes { body($0) }
    }

    private static func pointer(to bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer {
        bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? empty
    }
}
