{-# LANGUAGE ScopedTypeVariables #-}
{- |
   Module      : Data.Queue.Banker
   Description : A purely functional FIFO queue (banker's queue).

Amortised O(1) push and pop.
-}

module Data.Queue.Banker
  ( Queue
  , empty
  , push
  , pop
  , fromList
  ) where

import qualified Data.List as L
import Data.Maybe (fromMaybe)
import Text.Printf (printf)
import MyLib.Pretty (Pretty(..))

-- | A queue with a front list and a reversed back list.
data Queue a = Queue
  { front :: [a]
  , back  :: [a]
  } deriving (Show, Eq)

-- | Things that can be measured.
class Sized f where
  size :: f a -> Int

instance Sized Queue where
  size (Queue f b) = length f + length b

instance Pretty a => Pretty (Queue a) where
  pretty q = "Queue " ++ show (toList q)

-- | The empty queue.
empty :: Queue a
empty = Queue [] []

-- | Adds an element at the back.
push :: a -> Queue a -> Queue a
push x (Queue f b) = check (Queue f (x : b))

-- | Removes the front element, if any.
pop :: Queue a -> Maybe (a, Queue a)
pop (Queue [] _) = Nothing
pop (Queue (x : f) b) = Just (x, check (Queue f b))

fromList :: [a] -> Queue a
fromList xs = L.foldl' (flip push) empty xs

toList :: Queue a -> [a]
toList (Queue f b) = f ++ reverse b

-- keeps the invariant: the front is empty only when the queue is
check :: Queue a -> Queue a
check q@(Queue f b)
  | null f    = Queue (reverse b) []
  | otherwise = q
  where
    -- a comment with = and :: inside
    _unused = fromMaybe 0 Nothing :: Int

newtype Size = Size Int

type Name = String

describe :: Queue Int -> String
describe q = printf "%d items, first '%c'" (size q) 'x'
