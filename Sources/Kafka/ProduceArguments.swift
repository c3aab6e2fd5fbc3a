internal import CRDKafka
import Foundation

/// The `rd_kafka_vu_t` array describing one message, with the C memory it points to.
/// librdkafka copies everything during `rd_kafka_produceva` (`RD_KAFKA_MSG_F_COPY`), so the memory
/// only has to live for the call.
struct ProduceArguments {
    private let message: OutgoingMessage
    private let id: UInt64

    init(_ message: OutgoingMessage, id: UInt64) {
        self.message = message
        self.id = id
    }

    func withValues<Result>(_ body: (UnsafeBufferPointer<rd_kafka_vu_t>) -> Result) -> Result {
        var allocations: [UnsafeMutableRawPointer] = []
        defer { allocations.forEach { free($0) } }
        func cString(_ string: String) -> UnsafePointer<CChar> {
            let copy = strdup(string)!
            allocations.append(copy)
            return UnsafePointer(copy)
        }
        func bytes(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
            let copy = malloc(max(bytes.count, 1))!
            allocations.append(copy)
            bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return copy
        }

        var values: [rd_kafka_vu_t] = []
        func append(_ type: rd_kafka_vtype_t, _ fill: (inout rd_kafka_vu_t) -> Void) {
            var value = rd_kafka_vu_t()
            value.vtype = type
            fill(&value)
            values.append(value)
        }
        append(RD_KAFKA_VTYPE_TOPIC) { $0.u.cstr = cString(message.topic) }
        append(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = message.partition ?? RD_KAFKA_PARTITION_UA }
        append(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
        append(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = UnsafeMutableRawPointer(bitPattern: UInt(id)) }
        append(RD_KAFKA_VTYPE_VALUE) {
            $0.u.mem.ptr = bytes(message.value)
            $0.u.mem.size = message.value.count
        }
        if let key = message.key {
            append(RD_KAFKA_VTYPE_KEY) {
                $0.u.mem.ptr = bytes(key)
                $0.u.mem.size = key.count
            }
        }
        for header in message.headers {
            append(RD_KAFKA_VTYPE_HEADER) {
                $0.u.header.name = cString(header.key)
                $0.u.header.val = header.value.map { UnsafeRawPointer(bytes($0)) }
                $0.u.header.size = header.value?.count ?? 0
            }
        }
        return values.withUnsafeBufferPointer(body)
    }
}
