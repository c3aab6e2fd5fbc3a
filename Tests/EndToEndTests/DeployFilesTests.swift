import Foundation
import Support
@testable import TestSupport
import Testing

/// The deploy files cannot run here (no container engine, no cluster, no systemd as PID 1), so what can be
/// checked is checked: they parse, every command they run is one of the package's binaries, every option
/// and environment variable they give is one that binary's `--help` lists, and `systemd-analyze verify`
/// passes on every worker's unit.
@Suite(.tags(.live, .storeFree)) struct DeployFilesTests {
    static let deploy = Binaries.packageRoot + "/deploy"
    static let executables = ["registrar", "account-worker", "image-worker", "profile-worker", "code-dispatch-worker", "kafka-tool"]
    /// The image reference the manifests name, a placeholder for the operator's registry (see the manifest's header).
    static let kubernetesImage = "registry.example.com/registrar:"
    /// The variables of each Secret, as the manifest's header says to create them (`kubectl create secret generic NAME
    /// --from-literal=VARIABLE=…`).
    static func kubernetesSecretVariables() throws -> [String: [String]] {
        let header = try String(contentsOfFile: deploy + "/kubernetes/registrar.yaml", encoding: .utf8)
            .split(separator: "\n").prefix { !$0.hasPrefix("---") }.map { $0.dropFirst(2) }.joined(separator: "\n")
            .replacingOccurrences(of: "\\\n", with: " ")
        var secrets: [String: [String]] = [:]
        for line in header.split(separator: "\n") where line.contains("kubectl create secret generic ") {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "generic"), index + 1 < words.count else { continue }
            secrets[String(words[index + 1])] = words.compactMap { word -> String? in
                guard word.hasPrefix("--from-literal=") else { return nil }
                return String(word.dropFirst("--from-literal=".count).prefix { $0 != "=" })
            }
        }
        return secrets
    }    /// Variables read by libraries or servers rather than by an option (S3 credentials).
    static let libraryVariables: Set<String> = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]

    @Test func composeRunsOnlyExistingCommandsOptionsAndVariables() async throws {
        let compose = try #require(try await Self.yaml(Self.deploy + "/compose.yaml").first as? [String: Any])
        let services = try #require(compose["services"] as? [String: [String: Any]])
        var checked = 0
        for (name, service) in services where (service["image"] as? String)?.contains("REGISTRAR_IMAGE") == true {
            let command = try #require(service["command"] as? [String], "\(name) has no command")
            let environment = (service["environment"] as? [String: Any]).map { Array($0.keys) } ?? []
            try await Self.expectKnown(command, environment: environment, in: "compose service \(name)")
            checked += 1
        }
        #expect(checked == 9, "the migrate, topics and ACL-script jobs, the four workers, the gateway and the console")
        for worker in ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker", "gateway"] {
            let health = try #require(services[worker]?["healthcheck"] as? [String: Any])
            #expect((health["test"] as? [String])?.last?.hasSuffix("/readyz") == true, "\(worker) is checked on /readyz")
        }
    }

    @Test func kubernetesRunsOnlyExistingCommandsWithProbesAndBudgets() async throws {
        let documents = try await Self.yaml(Self.deploy + "/kubernetes/registrar.yaml").compactMap { $0 as? [String: Any] }
        let config = try #require(documents.first { $0["kind"] as? String == "ConfigMap" }?["data"] as? [String: Any])
        let documented = try Self.kubernetesSecretVariables()
        var deployments: [String] = []
        for document in documents where ["Deployment", "Job"].contains(document["kind"] as? String) {
            let template = try #require((document["spec"] as? [String: Any])?["template"] as? [String: Any])
            let pod = try #require(template["spec"] as? [String: Any])
            let containers = ((pod["initContainers"] as? [[String: Any]]) ?? []) + (try #require(pod["containers"] as? [[String: Any]]))
            for container in containers where (container["image"] as? String)?.hasPrefix(Self.kubernetesImage) == true {
                let command = ((container["command"] as? [String]) ?? []) + ((container["args"] as? [String]) ?? [])
                let fromConfig = (container["envFrom"] as? [[String: Any]])?.contains { $0["configMapRef"] != nil } == true ? Array(config.keys) : []
                let fromSecrets = (container["envFrom"] as? [[String: Any]] ?? []).compactMap { ($0["secretRef"] as? [String: Any])?["name"] as? String }
                    .flatMap { documented[$0] ?? ["UNDOCUMENTED_SECRET_\($0)"] }
                let named = (container["env"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                try await Self.expectKnown(command, environment: fromConfig + fromSecrets + named, in: "kubernetes \(container["name"] ?? "?")")
                guard document["kind"] as? String == "Deployment" else { continue }
                deployments.append(try #require((document["metadata"] as? [String: Any])?["name"] as? String))
                #expect(((container["livenessProbe"] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String == "/healthz")
                #expect(((container["readinessProbe"] as? [String: Any])?["httpGet"] as? [String: Any])?["path"] as? String == "/readyz")
                #expect(container["resources"] != nil)
            }
        }
        #expect(deployments.sorted() == ["account-worker", "code-dispatch-worker", "gateway", "image-worker", "profile-worker"])
        let budgets = documents.filter { $0["kind"] as? String == "PodDisruptionBudget" }.compactMap { ($0["metadata"] as? [String: Any])?["name"] as? String }
        #expect(budgets.sorted() == deployments.sorted())
    }

    @Test func systemdVerifiesEveryUnit() async throws {
        let units = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: units) }
        // The units as systemd would load them, with the binaries of this build where /usr/local/bin is.
        func install(_ name: String, from source: String) throws {
            try FileManager.default.createDirectory(atPath: (units + "/" + name as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try String(contentsOfFile: Self.deploy + "/systemd/" + source, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin", with: Binaries.directory)
                .write(toFile: units + "/" + name, atomically: true, encoding: .utf8)
        }
        try install("registrar-.service.d/sandbox.conf", from: "registrar-.service.d/sandbox.conf")
        var commands: [(unit: String, command: [String])] = [
            ("registrar-gateway.service", ["registrar", "gateway", "--host", "--port", "--tls-cert", "--tls-key", "--clients", "--keys-dir",
                                           "--reply-key-file"]),
        ]
        try install("registrar-gateway.service", from: "registrar-gateway.service")
        for worker in ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"] {
            let unit = "registrar-worker@\(worker).service"
            try install(unit, from: "registrar-worker@.service")
            try install(unit + ".d/keys.conf", from: unit + ".d/keys.conf")
            commands.append((unit, [worker, "--keys-dir"]))
        }
        for (unit, command) in commands {
            let verify = try ChildProcess("/usr/bin/systemd-analyze", ["verify", units + "/" + unit], environment: ["SYSTEMD_UNIT_PATH": units + ":"],
                                          errors: .standardOutput)
            var lines: [String] = []
            while let line = await verify.nextLine() { lines.append(line) }
            #expect(await verify.waitForExit() == 0, "\(unit): \(lines)")
            #expect(lines.filter { !$0.contains("Failed to put bus name") }.isEmpty, "\(unit): \(lines)")
            let text = try String(contentsOfFile: units + "/" + unit, encoding: .utf8)
            #expect(command.dropFirst().allSatisfy { !$0.hasPrefix("--") || text.contains($0 + " ") }, "\(unit) runs \(command)")
            try await Self.expectKnown(command, environment: ["REGISTRAR_DATA_DIR", "KAFKA_PROPERTIES_FILE"], in: "systemd \(unit)")
        }
        // The shared sandbox really applies: systemd shows it in the loaded unit.
        let show = try ChildProcess("/usr/bin/systemd-analyze", ["security", "--offline=yes", units + "/registrar-gateway.service"],
                                    environment: ["SYSTEMD_UNIT_PATH": units + ":"], errors: .standardOutput)
        var exposure: [String] = []
        while let line = await show.nextLine() { exposure.append(line) }
        _ = await show.waitForExit()
        #expect(exposure.contains { $0.contains("Overall exposure level") && ($0.contains("OK") || $0.contains("SAFE")) }, "\(exposure.suffix(3))")
    }

    @Test func theContainerBuildsEveryBinaryWithTheLibrariesSetupInstalls() throws {
        let containerfile = try String(contentsOfFile: Self.deploy + "/Containerfile", encoding: .utf8)
        let setup = try String(contentsOfFile: Binaries.packageRoot + "/scripts/setup", encoding: .utf8)
        let libraries = try #require(setup.split(separator: "\n").first { $0.contains("# C libraries") })
        for package in libraries.split(separator: "#")[0].split(separator: " ") where package.hasSuffix("-dev") {
            #expect(containerfile.contains(String(package)), "the build stage installs \(package)")
        }
        for executable in Self.executables { #expect(containerfile.contains(" \(executable) ") || containerfile.contains(" \(executable);")) }
    }

    /// Expects `command` (a binary, maybe a subcommand, options) to name a binary of the package and only
    /// options and environment variables its `--help` lists.
    static func expectKnown(_ command: [String], environment: [String], in place: String) async throws {
        let binary = try #require(command.first)
        #expect(executables.contains(binary), "\(place): \(binary) is not one of the package's binaries")
        let subcommands = command.dropFirst().prefix { !$0.hasPrefix("-") }
        let help = try await Self.help(binary, Array(subcommands))
        for option in command where option.hasPrefix("--") {
            #expect(help.contains("  \(option) "), "\(place): \(binary) \(subcommands.joined(separator: " ")) has no \(option)")
        }
        for variable in environment where !libraryVariables.contains(variable) {
            #expect(help.contains("[env: \(variable)]"), "\(place): \(binary) reads no \(variable)")
        }
    }

    static func help(_ binary: String, _ subcommands: [String]) async throws -> String {
        let process = try ChildProcess(Binaries.path(binary), subcommands + ["--help"], errors: .standardOutput)
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        _ = await process.waitForExit()
        return lines.joined(separator: "\n")
    }

    /// Every document of a YAML file, parsed by PyYAML (Debian `python3-yaml`).
    static func yaml(_ path: String) async throws -> [Any] {
        let python = try ChildProcess("/usr/bin/python3", ["-c", "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))", path],
                                      errors: .standardOutput)
        var text = ""
        while let line = await python.nextLine() { text += line }
        #expect(await python.waitForExit() == 0, "\(path): \(text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])
    }
}
