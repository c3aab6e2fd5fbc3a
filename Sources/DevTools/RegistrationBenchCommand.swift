import Foundation
import Installation
import Support

/// `registrar-dev bench registrations`: registrations end to end through a local installation, against the
/// argon2id bound of the same cores, with each process's CPU and memory. Prints figures only.
public enum RegistrationBenchCommand {
    static let spec = CommandSpec(
        name: "registrar-dev bench registrations", summary: "registrations per second against the argon2id bound of the same cores",
        usage: "[--count N] [--avatars] [--account-replicas 1|2] [--burst] [--idle-seconds S] [--bootstrap HOST:PORT]",
        options: [
            .value("count", "Registrations measured", default: "300"),
            .flag("avatars", "Each registration carries an avatar (the default image, inline)"),
            .value("account-replicas", "Account worker processes in the group", default: "1"),
            .flag("burst", "Publish every registration at once (else --in-flight at a time)"),
            .value("in-flight", "Registrations awaited at once without --burst", default: "64"),
            .value("idle-seconds", "Then watch the idle processes this long (0: not at all)", default: "0"),
            .value("hash-seconds", "How long the argon2id hashers run", default: "5"),
            .value("data-dir", "Where the installation keeps its stores and logs (emptied first, removed after)", default: "data/bench"),
            .value("bootstrap", "A running broker to use (e.g. Tansu) instead of starting the local one"),
            .value("fetch-wait-ms", "The workers' fetch wait (default: 500 on a running broker, 10 on the local one)"),
        ])

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            var settings = RegistrationBenchmark.Settings(
                count: max(1, try parsed.integer("count") ?? 300), avatars: parsed.flag("avatars"),
                accountReplicas: max(1, try parsed.integer("account-replicas") ?? 1), burst: parsed.flag("burst"),
                inFlight: try parsed.integer("in-flight") ?? 64, idle: .seconds(max(0, try parsed.integer("idle-seconds") ?? 0)),
                hashing: .seconds(max(1, try parsed.integer("hash-seconds") ?? 5)),
                dataDirectory: parsed.value("data-dir") ?? "data/bench", binaries: LocalInstallation.besideThisBinary,
                bootstrap: parsed.value("bootstrap"))
            settings.fetchWait = try parsed.integer("fetch-wait-ms").map { .milliseconds($0) }
            let report = try await RegistrationBenchmark(settings).run()
            print(report.text)
            return report.completed == settings.count ? .success : .failure
        }
    }
}
