import CodeDispatchAssembly
import WorkerAssembly

await CodeDispatchWorker.main()
