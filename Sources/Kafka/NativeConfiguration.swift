internal import CRDKafka
import Foundation

/// Owns an `rd_kafka_conf_t` until `makeClient` hands it to `rd_kafka_new`; destroys it otherwise.
struct NativeConfiguration: ~Copyable {
    private let pointer: OpaquePointer

    /// Applies `properties` in order; the first one librdkafka rejects throws with librdkafka's text, the value
    /// (which may be a secret, e.g. `sasl.password`) cut out of it.
    init(_ properties: [(String, String)]) throws(KafkaError) {
        pointer = rd_kafka_conf_new()
        for (name, value) in properties {
            var errorText = [CChar](repeating: 0, count: 512)
            let result = rd_kafka_conf_set(pointer, name, value, &errorText, errorText.count)
            guard result == RD_KAFKA_CONF_OK else {
                var message = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !value.isEmpty { message = message.replacingOccurrences(of: value, with: "(value not shown)") }
                throw KafkaError(code: KafkaError.Code.invalidConfiguration, message: message,
                                 isRetriable: false, isFatal: false)
            }
        }
    }

    deinit { rd_kafka_conf_destroy(pointer) }

    /// Gives librdkafka's callbacks access to `callbacks` through the configuration's opaque pointer.
    func setCallbacks(_ callbacks: ClientCallbacks) {
        rd_kafka_conf_set_opaque(pointer, Unmanaged.passUnretained(callbacks).toOpaque())
        callbacks.install(on: pointer)
    }

    /// Creates the client. On success `rd_kafka_new` owns the configuration; on failure it is destroyed here.
    consuming func makeClient(_ type: rd_kafka_type_t) throws(KafkaError) -> OpaquePointer {
        var errorText = [CChar](repeating: 0, count: 512)
        let handle = rd_kafka_new(type, pointer, &errorText, errorText.count)
        if handle == nil { rd_kafka_conf_destroy(pointer) }
        discard self
        guard let handle else {
            let message = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw KafkaError(code: KafkaError.Code.invalidConfiguration, message: message,
                             isRetriable: false, isFatal: false)
        }
        return handle
    }
}
