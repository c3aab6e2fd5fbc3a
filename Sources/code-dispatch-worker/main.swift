import WorkerAssembly

await CodeDispatchWorker.main()
