import Foundation
@testable import TestSupport
import Testing

/// Each worker binary links only the C libraries its role uses (issue 28): libvips the image worker alone,
/// libpwquality and zxcvbn the account worker alone, libcurl only the workers that mail or keep objects, SQLite and
/// libpq only those that open a SQL store (either, chosen at run time by its URL); every worker librdkafka, libsodium
/// and libmicrohttpd. Read from the binary's ELF `DT_NEEDED` entries (`readelf -d`): the libraries it names itself,
/// not those these bring in (libvips brings in libcurl).
@Suite(.tags(.live, .storeFree)) struct WorkerLinkageTests {
    /// The project's C libraries (`Sources/C*`), by the name of their shared object before `.so`.
    static let projectLibraries: Set = ["librdkafka", "libsodium", "libmicrohttpd", "libsqlite3", "libpq", "libcurl", "libvips",
                                        "libpwquality", "libzxcvbn"]
    /// What every worker uses: Kafka, the event signatures, the operations endpoint.
    static let everyWorker: Set = ["librdkafka", "libsodium", "libmicrohttpd"]
    static let sqlStores: Set = ["libsqlite3", "libpq"]
    /// Each worker's libraries besides ``everyWorker``.
    static let roles: [String: Set<String>] = [
        "account-worker": sqlStores.union(["libcurl", "libpwquality", "libzxcvbn"]),
        "code-dispatch-worker": sqlStores.union(["libcurl"]),
        "image-worker": ["libcurl", "libvips"],
        "profile-worker": sqlStores,
    ]

    @Test func eachWorkerLinksOnlyTheCLibrariesOfItsRole() throws {
        for (worker, own) in Self.roles.sorted(by: { $0.key < $1.key }) {
            let linked = try Self.projectLibraries(neededBy: Binaries.path(worker))
            let expected = Self.everyWorker.union(own)
            #expect(linked.sorted() == expected.sorted(), "\(worker) links \(linked.subtracting(expected).sorted()) beyond its role, lacks \(expected.subtracting(linked).sorted())")
        }
    }

    /// The project's libraries among the `DT_NEEDED` entries of the ELF file at `path`.
    static func projectLibraries(neededBy path: String) throws -> Set<String> {
        let dynamicSection = try runCommand("/usr/bin/readelf", ["--dynamic", "--wide", path])
        let needed = dynamicSection.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            let file = line[line.index(after: open)..<close]
            return String(file.prefix { $0 != "." })
        }
        #expect(needed.contains("libc"), "no DT_NEEDED entries read from \(path)")
        return projectLibraries.intersection(needed)
    }
}
