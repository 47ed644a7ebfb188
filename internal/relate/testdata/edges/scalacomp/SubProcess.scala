package demo

class SubProcess(val pid: Long) {
  def destroy(): Unit = SubProcess.kill(pid)
}

object SubProcess {
  def kill(pid: Long): Unit = println(pid)
}
