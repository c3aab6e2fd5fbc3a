import WorkerAssembly

await AccountWorker.main()
