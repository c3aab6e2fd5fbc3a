import KafkaCommands
import Support

await CommandLineTool.exit { await KafkaTool.main(Array(CommandLine.arguments.dropFirst())) }
