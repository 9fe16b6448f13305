WITH `wml_param_lookup` AS (
  SELECT
    CAST(`v`.`code` AS INT64) AS `code`,
    CAST(`v`.`lp_0` AS FLOAT64) AS `lp_0`,
    CAST(`v`.`lp_1` AS FLOAT64) AS `lp_1`
  FROM UNNEST([
    STRUCT(
      0 AS code,
      CAST(-0.916290731874155 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      1 AS code,
      CAST(-0.916290731874155 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      2 AS code,
      CAST(-1.6094379124341003 AS FLOAT64) AS lp_0,
      CAST(-1.0986122886681096 AS FLOAT64) AS lp_1
    ),
    STRUCT(
      3 AS code,
      CAST(-1.6094379124341003 AS FLOAT64) AS lp_0,
      CAST(-1.791759469228055 AS FLOAT64) AS lp_1
    ),
    STRUCT(4 AS code, CAST(0.0 AS FLOAT64) AS lp_0, CAST(0.0 AS FLOAT64) AS lp_1)
  ]) AS v
), wml_input AS (
  SELECT
    *
  FROM `t`
), wml_joint AS (
  SELECT
    `s`.`id` AS `wml_k_0`,
    (
      (
        CAST(-0.6931471805599452 AS FLOAT64) + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`c` AS STRING)
            WHEN 'a'
            THEN CAST(-0.5108256237659905 AS FLOAT64)
            WHEN 'b'
            THEN CAST(-0.916290731874155 AS FLOAT64)
            ELSE CAST(-1.6094379124341003 AS FLOAT64)
          END
        END
      ) + (
        CASE
          WHEN CAST(`s`.`x` AS FLOAT64) IS NULL OR CAST(1.6666666666666667 AS FLOAT64) IS NULL
          THEN CAST(0 AS FLOAT64)
          ELSE -0.5 * LN(2 * ACOS(-1) * CAST(1.0555555562955554 AS FLOAT64)) - (
            CAST(`s`.`x` AS FLOAT64) - CAST(1.6666666666666667 AS FLOAT64)
          ) * (
            CAST(`s`.`x` AS FLOAT64) - CAST(1.6666666666666667 AS FLOAT64)
          ) / (
            2 * CAST(1.0555555562955554 AS FLOAT64)
          )
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`d` AS STRING)
            WHEN 'x'
            THEN CAST(-0.5108256237659905 AS FLOAT64)
            WHEN 'y'
            THEN CAST(-0.916290731874155 AS FLOAT64)
            ELSE CAST(-1.6094379124341003 AS FLOAT64)
          END
        END
      )
    ) + `wml_a3`.`lp_0` AS `wml_j_0`,
    (
      (
        CAST(-0.6931471805599452 AS FLOAT64) + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`c` AS STRING)
            WHEN 'a'
            THEN CAST(-0.6931471805599453 AS FLOAT64)
            WHEN 'b'
            THEN CAST(-0.6931471805599453 AS FLOAT64)
            ELSE CAST(-1.3862943611198906 AS FLOAT64)
          END
        END
      ) + (
        CASE
          WHEN CAST(`s`.`x` AS FLOAT64) IS NULL OR CAST(2.25 AS FLOAT64) IS NULL
          THEN CAST(0 AS FLOAT64)
          ELSE -0.5 * LN(2 * ACOS(-1) * CAST(0.06250000074 AS FLOAT64)) - (
            CAST(`s`.`x` AS FLOAT64) - CAST(2.25 AS FLOAT64)
          ) * (
            CAST(`s`.`x` AS FLOAT64) - CAST(2.25 AS FLOAT64)
          ) / (
            2 * CAST(0.06250000074 AS FLOAT64)
          )
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`d` AS STRING)
            WHEN 'x'
            THEN CAST(-0.6931471805599453 AS FLOAT64)
            WHEN 'y'
            THEN CAST(-0.6931471805599453 AS FLOAT64)
            ELSE CAST(-1.3862943611198906 AS FLOAT64)
          END
        END
      )
    ) + `wml_a3`.`lp_1` AS `wml_j_1`
  FROM wml_input AS s
  INNER JOIN `wml_param_lookup` AS wml_a3
    ON `wml_a3`.`code` = CAST(0 + CASE
      WHEN `s`.`k` IS NULL
      THEN 4
      WHEN `s`.`k` < 0 OR `s`.`k` > 2
      THEN 3
      ELSE CAST(`s`.`k` AS INT64) - 0
    END AS INT64)
), wml_maxed AS (
  SELECT
    *,
    GREATEST(`wml_j_0`, `wml_j_1`) AS `wml_max`
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN `wml_j_0` IS NULL OR `wml_j_0` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_0` - `wml_max`)
    END AS `wml_s_0`,
    CASE
      WHEN `wml_j_1` IS NULL OR `wml_j_1` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_1` - `wml_max`)
    END AS `wml_s_1`
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    `wml_s_0` + `wml_s_1` AS `wml_total`
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    `wml_s_0` / NULLIF(`wml_total`, 0) AS `wml_p_0`,
    `wml_j_0` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_0`,
    `wml_s_1` / NULLIF(`wml_total`, 0) AS `wml_p_1`,
    `wml_j_1` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_1`
  FROM wml_totalled
)
SELECT
  `wml_k_0` AS `id`,
  `wml_p_0` AS `p_p`,
  `wml_p_1` AS `p_q`,
  CASE WHEN `wml_j_0` = `wml_max` THEN 'p' WHEN `wml_j_1` = `wml_max` THEN 'q' END AS `prediction`
FROM wml_posterior
