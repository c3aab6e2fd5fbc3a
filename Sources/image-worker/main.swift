import WorkerAssembly

await ImageWorker.main()
