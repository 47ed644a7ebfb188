module Site.Web.Links
    ( toUrl
    , depth
    ) where

import Data.Maybe (fromMaybe)
import Site.Core.Paths (normalise, qualifiedName)
import qualified Site.Core.Paths as P

-- | A URL for a file path, with spaces escaped.
toUrl :: FilePath -> String
toUrl p = concatMap esc (normalise p)
  where
    esc ' ' = "%20"
    esc c   = [c]

-- | How many directories deep a page is, 0 for a missing one.
depth :: Maybe FilePath -> Int
depth mp = length (P.splitDirs (fromMaybe "" mp)) - 1
