import Foundation

/// Where the binaries of this build are: beside the test bundle, in the build's products directory.
enum Binaries {
    static let directory: String = {
        var url = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.path + "/registrar") { return url.path }
        }
        fatalError("no registrar binary beside the tests; run `swift build` first")
    }()

    static func path(_ name: String) -> String { directory + "/" + name }

    /// The package's root (for `contract/`).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()
}
