@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// The compiler plugin's entry point: what swift-syntax's `SwiftCompilerPlugin` does, over the toolchain's own message
/// handling (the swift-syntax package cannot be fetched here; its modules ship with the toolchain).
@main
struct MemberwiseInitPlugin: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        guard typeName == "PublicInitMacro" else { throw UnknownMacro(name: "\(moduleName).\(typeName)") }
        return PublicInitMacro.self
    }

    static func main() throws {
        let handler = PluginProviderMessageHandler(provider: Self())
        try CompilerPluginMessageListener(connection: StandardIOMessageConnection(), messageHandler: handler).main()
    }
}

struct UnknownMacro: Error, CustomStringConvertible {
    let name: String
    var description: String { "no macro \(name) in this plugin" }
}
