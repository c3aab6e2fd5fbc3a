import WorkerAssembly

await ProfileWorker.main()
