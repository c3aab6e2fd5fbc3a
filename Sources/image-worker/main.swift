import ImageAssembly
import WorkerAssembly

await ImageWorker.main()
