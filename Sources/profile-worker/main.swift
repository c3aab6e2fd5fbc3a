import ProfileAssembly
import WorkerAssembly

await ProfileWorker.main()
