import Foundation
import Support
@testable import TestSupport
import Testing

/// A log line that cannot be written is dropped; the process goes on.
@Suite(.tags(.unit)) struct LoggerTests {
    @Test func aLineWrittenToAFullDiskIsDropped() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0, "/dev/full is available")
        defer { close(full) }
        let logger = Logger(component: "test", fileDescriptor: full)
        for _ in 0..<3 { logger.error("the disk is full", ["attempt": 1]) }
    }

    /// A descriptor that is not open (-1: never one, unlike the number of a descriptor closed here, which another test
    /// running meanwhile may be given — a line written there went into its pipe).
    @Test func aLineWrittenToADescriptorNotOpenIsDropped() {
        Logger(component: "test", fileDescriptor: -1).error("nowhere to go")
    }

    @Test func aLineIsWrittenWholeToItsDescriptor() throws {
        var pair: [Int32] = [0, 0]
        try #require(pipe(&pair) == 0)
        defer { close(pair[0]) }
        Logger(component: "test", fileDescriptor: pair[1]).error("written", ["n": 7])
        close(pair[1])
        let line = String(decoding: FileHandle(fileDescriptor: pair[0]).readDataToEndOfFile(), as: UTF8.self)
        #expect(line.hasSuffix("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "written")
        #expect(object["n"] as? Int == 7)
        #expect(object["component"] as? String == "test")
    }

    @Test func aLineKeepsEveryFieldWithItsTypeAndEscapesWhatJSONMust() throws {
        var pair: [Int32] = [0, 0]
        try #require(pipe(&pair) == 0)
        defer { close(pair[0]) }
        let message = "a \"quoted\" word\non two lines\u{1}, a back\\slash, a/slash, a tab\t, ünïcødé"
        Logger(component: "test", fields: ["request": "r-1"], fileDescriptor: pair[1])
            .error(message, ["n": 7, "ok": true, "ratio": 0.5, "wide": Int64(1) << 40, "narrow": Int32(-3)])
        close(pair[1])
        let data = FileHandle(fileDescriptor: pair[0]).readDataToEndOfFile()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["message"] as? String == message)
        #expect(object["request"] as? String == "r-1")
        #expect(object["n"] as? Int == 7)
        #expect(object["ok"] as? Bool == true)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(object["wide"] as? Int == 1 << 40)
        #expect(object["narrow"] as? Int == -3)
        #expect(object["level"] as? String == "error")
        #expect(object["time"] is String)
        #expect(String(decoding: data, as: UTF8.self).filter { $0 == "\n" }.count == 1)
    }
}
