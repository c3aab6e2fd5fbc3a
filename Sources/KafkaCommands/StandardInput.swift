import Foundation

/// Standard input's lines, read on a dedicated thread so the blocking reads stay off Swift's pool.
enum StandardInput {
    static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1024))
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                while case .dropped = continuation.yield(line) { usleep(1000) }
            }
            continuation.finish()
        }
        thread.name = "stdin"
        thread.start()
        return stream
    }
}
