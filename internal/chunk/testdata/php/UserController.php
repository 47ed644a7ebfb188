<?php

namespace App\Http\Controllers;

use App\Models\User;
use Illuminate\Http\Request;

require_once __DIR__ . '/helpers.php';

/**
 * Handles user pages.
 */
#[Route('/users')]
class UserController extends Controller implements HasMiddleware
{
    private UserRepository $users;

    public function __construct(UserRepository $users)
    {
        $this->users = $users;
    }

    public function show(Request $request, int $id): View
    {
        $user = $this->users->find($id);
        return view('users.show', ['user' => User::format($user)]);
    }
}

interface HasMiddleware
{
    public function middleware(): array;
}

trait Loggable
{
    protected function log(string $msg): void { error_log($msg); }
}

function helper($x) {
    return strtoupper($x);
}
