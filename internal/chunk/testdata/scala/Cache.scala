package com.example.cache

import scala.collection.mutable
import com.example.metrics.Metrics

/** An LRU cache. */
class Cache[K, V](capacity: Int) extends Store[K, V] with Serializable {
  private val entries = mutable.LinkedHashMap.empty[K, V]

  def get(key: K): Option[V] = {
    Metrics.hit("cache")
    entries.get(key)
  }

  def put(key: K, value: V): Unit = {
    entries.put(key, value)
    evict()
  }

  private def evict(): Unit = if (entries.size > capacity) entries.remove(entries.head._1)
}

object Cache {
  def apply[K, V](capacity: Int): Cache[K, V] = new Cache(capacity)
}

trait Store[K, V] {
  def get(key: K): Option[V]
}

case class Entry(key: String, value: Int)
