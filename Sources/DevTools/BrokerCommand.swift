import Domain
import Foundation
import KafkaCommands
import Registration
import Support

/// `registrar-dev broker`: `kafka-tool broker` with Registrar's topics created up front and, with
/// `--data-dir`, its address written to `<data-dir>/broker.bootstrap` (where every other command
/// finds it) and its fault-injection socket at `<data-dir>/broker.control`.
public enum BrokerCommand {
    public static func run(_ arguments: [String]) async -> ExitCode {
        var forwarded: [String] = []
        var dataDirectory = ProcessInfo.processInfo.environment["REGISTRAR_DATA_DIR"]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--data-dir", index + 1 < arguments.count {
                dataDirectory = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--data-dir=") {
                dataDirectory = String(argument.dropFirst("--data-dir=".count))
            } else {
                forwarded.append(argument)
            }
            index += 1
        }
        if arguments.contains("--help") {
            print("registrar-dev broker [--data-dir DIR] [kafka-tool broker options]\n"
                  + "Creates Registrar's topics; with --data-dir writes DIR/broker.bootstrap and serves DIR/broker.control.\n")
        }
        let topics = Topic.all.flatMap { ["--topic", "\($0.name):\($0.partitions)"] }
        var placement: [String] = []
        if let dataDirectory {
            try? PrivateFiles.prepareDirectory(dataDirectory)
            placement = ["--bootstrap-file", dataDirectory + "/broker.bootstrap", "--control", dataDirectory + "/broker.control"]
        }
        return await KafkaTool.main(["broker"] + topics + placement + forwarded)
    }
}
