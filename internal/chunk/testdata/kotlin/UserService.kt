package com.example.app

import kotlinx.coroutines.launch
import kotlin.collections.List
import com.example.data.Repo

/**
 * Business logic for users.
 */
@Service
class UserService(private val repo: Repo) : BaseService(), Closeable {
    private val cache = mutableMapOf<Long, User>()

    fun find(id: Long, name: String = "x"): User? {
        return repo.findById(id).also { log(it) }
    }

    override fun close() {
        repo.close()
    }

    companion object {
        fun create(): UserService = UserService(Repo())
    }
}

object Registry {
    fun register(x: Any) {
        items.add(x)
    }
}

interface Repo2 {
    fun all(): List<User>
}

enum class Color { RED, GREEN }

data class User(val id: Long, val name: String)

fun top(a: Int) = a + 1

suspend fun <T> retry(times: Int, block: suspend () -> T): T {
    repeat(times - 1) { runCatching { block() } }
    return block()
}
