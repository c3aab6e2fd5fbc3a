import Support

extension KafkaConfiguration {
    /// Routes librdkafka's errors and log lines into `logger`'s JSON lines instead of raw stderr.
    public mutating func log(to logger: Logger) {
        errorHandler = { error in logger.warning("kafka: \(error.message)", ["code": error.name]) }
        logHandler = { entry in
            logger.log(entry.level <= 3 ? .error : entry.level <= 5 ? .warning : .debug,
                       "librdkafka: \(entry.message)", ["facility": entry.facility])
        }
    }
}
