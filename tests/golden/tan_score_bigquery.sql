WITH wml_input AS (
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
            THEN CAST(-0.47000362924573547 AS FLOAT64)
            WHEN 'b'
            THEN CAST(-0.9808292530117262 AS FLOAT64)
            ELSE CAST(-2.0794415416798357 AS FLOAT64)
          END
        END
      ) + (
        CASE
          WHEN CASE
            WHEN `s`.`x` IS NULL
            THEN NULL
            WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
            THEN 0
            WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
            THEN 1
            WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
            THEN 2
            WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`k` AS STRING)
            WHEN '0'
            THEN CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '1'
              THEN CAST(-0.8472978603872037 AS FLOAT64)
              WHEN '2'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '3'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '4'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              ELSE CAST(-2.3978952727983707 AS FLOAT64)
            END
            WHEN '1'
            THEN CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-0.8472978603872037 AS FLOAT64)
              WHEN '1'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '2'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '3'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '4'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              ELSE CAST(-2.3978952727983707 AS FLOAT64)
            END
            ELSE CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-1.2992829841302609 AS FLOAT64)
              WHEN '1'
              THEN CAST(-1.2992829841302609 AS FLOAT64)
              WHEN '2'
              THEN CAST(-2.3978952727983707 AS FLOAT64)
              WHEN '3'
              THEN CAST(-2.3978952727983707 AS FLOAT64)
              WHEN '4'
              THEN CAST(-1.2992829841302609 AS FLOAT64)
              ELSE CAST(-2.3978952727983707 AS FLOAT64)
            END
          END
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(CASE
              WHEN `s`.`x` IS NULL
              THEN NULL
              WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
              THEN 0
              WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
              THEN 1
              WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
              THEN 2
              WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
              THEN 3
              ELSE 4
            END AS STRING)
            WHEN '0'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.2876820724517809 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-1.3862943611198906 AS FLOAT64)
              ELSE CAST(-2.0794415416798357 AS FLOAT64)
            END
            WHEN '1'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.2876820724517809 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-1.3862943611198906 AS FLOAT64)
              ELSE CAST(-2.0794415416798357 AS FLOAT64)
            END
            WHEN '2'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              ELSE CAST(-2.0794415416798357 AS FLOAT64)
            END
            WHEN '4'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-1.3862943611198906 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.2876820724517809 AS FLOAT64)
              ELSE CAST(-2.0794415416798357 AS FLOAT64)
            END
            ELSE CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.47000362924573547 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.9808292530117262 AS FLOAT64)
              ELSE CAST(-2.0794415416798357 AS FLOAT64)
            END
          END
        END
      )
    ) + CASE
      WHEN `s`.`k` IS NULL
      THEN CAST(0.0 AS FLOAT64)
      ELSE CASE CAST(`s`.`c` AS STRING)
        WHEN 'a'
        THEN CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-0.5108256237659907 AS FLOAT64)
          WHEN '1'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          WHEN '2'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          ELSE CAST(-1.9459101490553135 AS FLOAT64)
        END
        WHEN 'b'
        THEN CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          WHEN '1'
          THEN CAST(-0.5108256237659907 AS FLOAT64)
          WHEN '2'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          ELSE CAST(-1.9459101490553135 AS FLOAT64)
        END
        ELSE CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-0.8472978603872037 AS FLOAT64)
          WHEN '1'
          THEN CAST(-0.8472978603872037 AS FLOAT64)
          WHEN '2'
          THEN CAST(-1.9459101490553135 AS FLOAT64)
          ELSE CAST(-1.9459101490553135 AS FLOAT64)
        END
      END
    END AS `wml_j_0`,
    (
      (
        CAST(-0.6931471805599452 AS FLOAT64) + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`c` AS STRING)
            WHEN 'a'
            THEN CAST(-0.6931471805599454 AS FLOAT64)
            WHEN 'b'
            THEN CAST(-0.6931471805599454 AS FLOAT64)
            ELSE CAST(-1.791759469228055 AS FLOAT64)
          END
        END
      ) + (
        CASE
          WHEN CASE
            WHEN `s`.`x` IS NULL
            THEN NULL
            WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
            THEN 0
            WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
            THEN 1
            WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
            THEN 2
            WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(`s`.`k` AS STRING)
            WHEN '0'
            THEN CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '1'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '2'
              THEN CAST(-0.8472978603872037 AS FLOAT64)
              WHEN '3'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '4'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              ELSE CAST(-2.1972245773362196 AS FLOAT64)
            END
            WHEN '1'
            THEN CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '1'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '2'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              WHEN '3'
              THEN CAST(-0.8472978603872037 AS FLOAT64)
              WHEN '4'
              THEN CAST(-1.9459101490553135 AS FLOAT64)
              ELSE CAST(-2.1972245773362196 AS FLOAT64)
            END
            ELSE CASE CAST(CASE
                WHEN `s`.`x` IS NULL
                THEN NULL
                WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
                THEN 0
                WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
                THEN 1
                WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
                THEN 2
                WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
                THEN 3
                ELSE 4
              END AS STRING)
              WHEN '0'
              THEN CAST(-2.1972245773362196 AS FLOAT64)
              WHEN '1'
              THEN CAST(-2.1972245773362196 AS FLOAT64)
              WHEN '2'
              THEN CAST(-1.0986122886681098 AS FLOAT64)
              WHEN '3'
              THEN CAST(-1.0986122886681098 AS FLOAT64)
              WHEN '4'
              THEN CAST(-2.1972245773362196 AS FLOAT64)
              ELSE CAST(-2.1972245773362196 AS FLOAT64)
            END
          END
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0.0 AS FLOAT64)
          ELSE CASE CAST(CASE
              WHEN `s`.`x` IS NULL
              THEN NULL
              WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
              THEN 0
              WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
              THEN 1
              WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
              THEN 2
              WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
              THEN 3
              ELSE 4
            END AS STRING)
            WHEN '0'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              ELSE CAST(-1.791759469228055 AS FLOAT64)
            END
            WHEN '1'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              ELSE CAST(-1.791759469228055 AS FLOAT64)
            END
            WHEN '2'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.2876820724517809 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-1.3862943611198906 AS FLOAT64)
              ELSE CAST(-1.791759469228055 AS FLOAT64)
            END
            WHEN '4'
            THEN CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.6931471805599453 AS FLOAT64)
              ELSE CAST(-1.791759469228055 AS FLOAT64)
            END
            ELSE CASE CAST(`s`.`d` AS STRING)
              WHEN 'x'
              THEN CAST(-0.6931471805599454 AS FLOAT64)
              WHEN 'y'
              THEN CAST(-0.6931471805599454 AS FLOAT64)
              ELSE CAST(-1.791759469228055 AS FLOAT64)
            END
          END
        END
      )
    ) + CASE
      WHEN `s`.`k` IS NULL
      THEN CAST(0.0 AS FLOAT64)
      ELSE CASE CAST(`s`.`c` AS STRING)
        WHEN 'a'
        THEN CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          WHEN '1'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          WHEN '2'
          THEN CAST(-0.5108256237659907 AS FLOAT64)
          ELSE CAST(-2.1972245773362196 AS FLOAT64)
        END
        WHEN 'b'
        THEN CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          WHEN '1'
          THEN CAST(-0.5108256237659907 AS FLOAT64)
          WHEN '2'
          THEN CAST(-1.6094379124341005 AS FLOAT64)
          ELSE CAST(-2.1972245773362196 AS FLOAT64)
        END
        ELSE CASE CAST(`s`.`k` AS STRING)
          WHEN '0'
          THEN CAST(-1.0986122886681098 AS FLOAT64)
          WHEN '1'
          THEN CAST(-1.0986122886681098 AS FLOAT64)
          WHEN '2'
          THEN CAST(-1.0986122886681098 AS FLOAT64)
          ELSE CAST(-2.1972245773362196 AS FLOAT64)
        END
      END
    END AS `wml_j_1`
  FROM wml_input AS s
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
