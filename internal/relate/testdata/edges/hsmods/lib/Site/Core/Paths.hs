module Site.Core.Paths
    ( normalise
    , splitDirs
    ) where

import qualified Data.List as L

-- | Turn Windows separators into slashes.
normalise :: FilePath -> FilePath
normalise = map (\c -> if c == '\\' then '/' else c)

-- | The directories of a path, outermost first.
splitDirs :: FilePath -> [String]
splitDirs p = L.filter (not . null) (go (normalise p))
  where
    go s = case break (== '/') s of
        (a, [])       -> [a]
        (a, _ : rest) -> a : go rest
