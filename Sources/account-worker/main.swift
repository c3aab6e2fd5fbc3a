import AccountAssembly
import WorkerAssembly

await AccountWorker.main()
