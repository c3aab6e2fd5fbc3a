import Kafka
import Support
import Synchronization

/// What librdkafka says about a command's brokers, kept off the terminal unless `--verbose`: when the command
/// fails because no broker could be reached, it says so in one line (`cannot reach Kafka at 127.0.0.1:9092:
/// connection refused`) instead of librdkafka's lines.
public final class BrokerTrouble: Sendable {
    /// `--verbose`: librdkafka's lines as well, logged as they come.
    public static let verboseOption = CommandSpec.Option.flag("verbose", "Log the Kafka client library's lines too")

    private let bootstrap: String
    private let lastFailure = Mutex<String?>(nil)

    public init(bootstrap: String) {
        self.bootstrap = bootstrap
    }

    /// Routes `configuration`'s errors and log lines here: remembered, and logged to `logger` only when `verbose`.
    func listen(to configuration: inout KafkaConfiguration, verbose: Bool, logger: Logger) {
        if verbose { configuration.log(to: logger) }
        let (logError, logLine) = (configuration.errorHandler, configuration.logHandler)
        configuration.errorHandler = { [self] error in
            if Self.unreachable.contains(error.code) { remember(error.message) }
            logError?(error)
        }
        // Connection failures come as log lines (facility FAIL) at once, and as errors only when polled.
        configuration.logHandler = { [self] entry in
            if entry.facility == "FAIL" { remember(entry.message) }
            logLine?(entry)
        }
    }

    private func remember(_ message: String) {
        if let reason = Self.reason(in: message) { lastFailure.withLock { $0 = reason } }
    }

    /// The line saying that `error` means no broker was reached, or nil when it means something else.
    public func explain(_ error: any Error) -> String? {
        guard let error = (error as? KafkaError) ?? (error as? any KafkaErrorWrapping)?.kafkaError else { return nil }
        let reason = lastFailure.withLock { $0 }
        switch error.code {
        case KafkaError.Code.transport, KafkaError.Code.allBrokersDown, KafkaError.Code.resolve:
            return "cannot reach Kafka at \(bootstrap): \(reason ?? "no broker answers")"
        case KafkaError.Code.timedOut where reason != nil:
            return "cannot reach Kafka at \(bootstrap): \(reason!)"
        default:
            return nil
        }
    }

    /// The codes librdkafka reports a broker it cannot reach with.
    private static let unreachable = [KafkaError.Code.transport, KafkaError.Code.allBrokersDown, KafkaError.Code.resolve]

    /// The reason in a librdkafka broker failure, e.g. `connection refused` from "[thrd:…]: 127.0.0.1:1/bootstrap: Connect
    /// to ipv4#127.0.0.1:1 failed: Connection refused (after 0ms in state CONNECT)"; nil for "1/1 brokers are down".
    static func reason(in message: String) -> String? {
        guard !message.hasSuffix("brokers are down") else { return nil }
        var text = Substring(message)
        if text.hasPrefix("["), let thread = text.range(of: "]: ") { text = text[thread.upperBound...] }
        if let failed = text.range(of: " failed: ") { text = text[failed.upperBound...] }
        else if let colon = text.range(of: ": ") { text = text[colon.upperBound...] }
        if let after = text.range(of: " (after ") { text = text[..<after.lowerBound] }
        guard let first = text.first else { return nil }
        return first.lowercased() + text.dropFirst()
    }
}
